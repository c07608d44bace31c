import unittest

from inventory import remove_item


class RemoveItemTest(unittest.TestCase):
    def test_removes_some(self):
        self.assertEqual(remove_item({"apple": 3}, "apple", 2), {"apple": 1})

    def test_removes_the_key_at_zero(self):
        self.assertEqual(remove_item({"apple": 2, "pear": 1}, "apple", 2), {"pear": 1})

    def test_not_enough(self):
        inventory = {"apple": 1}
        with self.assertRaises(ValueError):
            remove_item(inventory, "apple", 2)
        self.assertEqual(inventory, {"apple": 1})

    def test_missing_item(self):
        with self.assertRaises(ValueError):
            remove_item({}, "pear")

    def test_bad_count(self):
        with self.assertRaises(ValueError):
            remove_item({"apple": 1}, "apple", 0)


if __name__ == "__main__":
    unittest.main()
