def merge(intervals):
    """[[1, 3], [2, 6], [8, 10]] -> [[1, 6], [8, 10]]."""
    raise NotImplementedError
