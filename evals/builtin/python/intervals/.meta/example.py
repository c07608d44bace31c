def merge(intervals):
    """[[1, 3], [2, 6], [8, 10]] -> [[1, 6], [8, 10]]."""
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged
