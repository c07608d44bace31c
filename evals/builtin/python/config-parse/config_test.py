import unittest

from config import parse_config


class ParseConfigTest(unittest.TestCase):
    def test_values(self):
        text = 'name = demo\nport = 8080\ndebug = true\nverbose=false\ngreeting = "hello # world"\n'
        self.assertEqual(
            parse_config(text),
            {"name": "demo", "port": 8080, "debug": True, "verbose": False, "greeting": "hello # world"},
        )

    def test_comments_and_blank_lines(self):
        self.assertEqual(parse_config("# a comment\n\n  # another\nkey = value\n"), {"key": "value"})

    def test_last_wins(self):
        self.assertEqual(parse_config("a = 1\na = 2\n"), {"a": 2})

    def test_negative_numbers(self):
        self.assertEqual(parse_config("offset = -3\n"), {"offset": -3})

    def test_bad_line(self):
        with self.assertRaisesRegex(ValueError, "line 3"):
            parse_config("a = 1\n\nnot a setting\n")


if __name__ == "__main__":
    unittest.main()
