import unittest

from search import find


class FindTest(unittest.TestCase):
    def test_last_item(self):
        self.assertEqual(find([1, 3, 5, 7], 7), 3)

    def test_first_item(self):
        self.assertEqual(find([1, 3, 5, 7], 1), 0)

    def test_single_item(self):
        self.assertEqual(find([5], 5), 0)

    def test_missing(self):
        self.assertEqual(find([1, 3, 5], 4), -1)
        self.assertEqual(find([], 1), -1)

    def test_long_list(self):
        self.assertEqual(find(list(range(0, 100, 2)), 98), 49)


if __name__ == "__main__":
    unittest.main()
