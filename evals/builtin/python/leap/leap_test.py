import unittest

from leap import is_leap_year


class LeapTest(unittest.TestCase):
    def test_ordinary_years(self):
        self.assertTrue(is_leap_year(2024))
        self.assertFalse(is_leap_year(2023))

    def test_centuries(self):
        self.assertFalse(is_leap_year(1900))
        self.assertFalse(is_leap_year(2100))

    def test_every_fourth_century(self):
        self.assertTrue(is_leap_year(2000))
        self.assertTrue(is_leap_year(1600))


if __name__ == "__main__":
    unittest.main()
