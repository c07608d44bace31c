import unittest

from run_length import decode, encode


class RunLengthTest(unittest.TestCase):
    def test_encode(self):
        self.assertEqual(encode("WWWWB"), "4WB")
        self.assertEqual(encode("AB"), "AB")
        self.assertEqual(encode("aabbbcccc"), "2a3b4c")

    def test_long_runs_and_spaces(self):
        self.assertEqual(encode("W" * 12 + "  x"), "12W2 x")

    def test_decode(self):
        self.assertEqual(decode("4WB"), "WWWWB")
        self.assertEqual(decode("12W2 x"), "W" * 12 + "  x")

    def test_empty(self):
        self.assertEqual(encode(""), "")
        self.assertEqual(decode(""), "")

    def test_round_trip(self):
        text = "zzz ZZ  zZ"
        self.assertEqual(decode(encode(text)), text)


if __name__ == "__main__":
    unittest.main()
