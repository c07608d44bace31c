import re


def encode(text):
    """'WWWWB' -> '4WB'."""
    return "".join(
        (str(len(run)) if len(run) > 1 else "") + run[0]
        for run in (match.group(0) for match in re.finditer(r"(.)\1*", text, re.S))
    )


def decode(text):
    """'4WB' -> 'WWWWB'."""
    return "".join(char * int(count or 1) for count, char in re.findall(r"(\d*)(\D)", text, re.S))
