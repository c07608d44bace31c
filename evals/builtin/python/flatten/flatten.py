def flatten(items):
    """[1, [2, (3, [4])]] -> [1, 2, 3, 4]; strings stay whole, None is left out."""
    raise NotImplementedError
