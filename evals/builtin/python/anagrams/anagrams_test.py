import unittest

from anagrams import find_anagrams


class AnagramTest(unittest.TestCase):
    def test_some(self):
        self.assertEqual(
            find_anagrams("listen", ["enlists", "google", "inlets", "banana", "Silent"]),
            ["inlets", "Silent"],
        )

    def test_case(self):
        self.assertEqual(find_anagrams("Orchestra", ["cashregister", "Carthorse", "radishes"]), ["Carthorse"])

    def test_not_itself(self):
        self.assertEqual(find_anagrams("BANANA", ["banana", "Banana"]), [])

    def test_spaces_count(self):
        self.assertEqual(find_anagrams("go", ["og", "go ", "Og"]), ["og", "Og"])


if __name__ == "__main__":
    unittest.main()
