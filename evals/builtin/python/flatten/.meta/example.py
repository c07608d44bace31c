def flatten(items):
    """[1, [2, (3, [4])]] -> [1, 2, 3, 4]; strings stay whole, None is left out."""
    flat = []
    for item in items:
        if isinstance(item, (list, tuple)):
            flat.extend(flatten(item))
        elif item is not None:
            flat.append(item)
    return flat
