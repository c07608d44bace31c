import unittest

from matrix import transpose


class TransposeTest(unittest.TestCase):
    def test_square(self):
        self.assertEqual(transpose([[1, 2], [3, 4]]), [[1, 3], [2, 4]])

    def test_wide(self):
        self.assertEqual(transpose([[1, 2, 3], [4, 5, 6]]), [[1, 4], [2, 5], [3, 6]])

    def test_tall(self):
        self.assertEqual(transpose([[1], [2]]), [[1, 2]])

    def test_empty(self):
        self.assertEqual(transpose([]), [])


if __name__ == "__main__":
    unittest.main()
