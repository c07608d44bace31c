import unittest

from wrap import wrap


class WrapTest(unittest.TestCase):
    def test_fills_lines(self):
        self.assertEqual(wrap("the quick brown fox", 10), ["the quick", "brown fox"])

    def test_exact_fit(self):
        self.assertEqual(wrap("ab cd", 5), ["ab cd"])

    def test_one_word_a_line(self):
        self.assertEqual(wrap("a b c", 1), ["a", "b", "c"])

    def test_long_word(self):
        self.assertEqual(wrap("extraordinary word", 5), ["extraordinary", "word"])

    def test_spaces(self):
        self.assertEqual(wrap("  spaced   out  ", 20), ["spaced out"])

    def test_nothing(self):
        self.assertEqual(wrap("", 5), [])

    def test_bad_width(self):
        with self.assertRaises(ValueError):
            wrap("a", 0)


if __name__ == "__main__":
    unittest.main()
