def find_anagrams(word, candidates):
    """The candidates that are anagrams of word."""
    raise NotImplementedError
