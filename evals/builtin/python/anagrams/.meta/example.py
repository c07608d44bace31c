def find_anagrams(word, candidates):
    """The candidates that are anagrams of word."""
    key = word.lower()
    return [
        candidate
        for candidate in candidates
        if candidate.lower() != key and sorted(candidate.lower()) == sorted(key)
    ]
