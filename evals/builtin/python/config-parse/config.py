def parse_config(text):
    """'port = 8080' -> {'port': 8080}."""
    raise NotImplementedError
