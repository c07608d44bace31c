def wrap(text, width):
    """The words of text in lines of at most width characters (a longer word gets a line of its own)."""
    lines, line = [], ""
    for word in text.split(" "):
        if len(line) + len(word) > width:
            lines.append(line)
            line = ""
        line += word + " "
    lines.append(line)
    return lines
