def encode(text):
    """'WWWWB' -> '4WB'."""
    raise NotImplementedError


def decode(text):
    """'4WB' -> 'WWWWB'."""
    raise NotImplementedError
