def transpose(matrix):
    """The matrix (a list of equal-length rows) with rows and columns swapped."""
    n = len(matrix)
    return [[matrix[r][c] for r in range(n)] for c in range(n)]
