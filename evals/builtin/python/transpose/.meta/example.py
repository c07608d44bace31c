def transpose(matrix):
    """The matrix (a list of equal-length rows) with rows and columns swapped."""
    return [list(column) for column in zip(*matrix)]
