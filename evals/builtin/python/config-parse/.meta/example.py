import re


def _value(raw):
    if raw == "true":
        return True
    if raw == "false":
        return False
    if re.fullmatch(r"-?\d+", raw):
        return int(raw)
    if len(raw) >= 2 and raw.startswith('"') and raw.endswith('"'):
        return raw[1:-1]
    return raw


def parse_config(text):
    """'port = 8080' -> {'port': 8080}."""
    settings = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key, equals, raw = stripped.partition("=")
        if not equals or not key.strip():
            raise ValueError(f"line {number}: expected key = value, got {line!r}")
        settings[key.strip()] = _value(raw.strip())
    return settings
