import unittest

from flatten import flatten


class FlattenTest(unittest.TestCase):
    def test_deep_nesting(self):
        self.assertEqual(flatten([1, [2, [3, [4]]]]), [1, 2, 3, 4])

    def test_tuples(self):
        self.assertEqual(flatten([(1, 2), [3]]), [1, 2, 3])

    def test_strings_stay_whole(self):
        self.assertEqual(flatten(["ab", ["cd"]]), ["ab", "cd"])

    def test_none_is_left_out(self):
        self.assertEqual(flatten([None, 1, [None, [2]]]), [1, 2])

    def test_empty(self):
        self.assertEqual(flatten([]), [])


if __name__ == "__main__":
    unittest.main()
