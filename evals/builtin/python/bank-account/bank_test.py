import unittest

from bank import BankAccount


class BankAccountTest(unittest.TestCase):
    def test_starts_empty(self):
        self.assertEqual(BankAccount().balance, 0)

    def test_deposit_and_withdraw(self):
        account = BankAccount()
        account.deposit(100)
        account.withdraw(30)
        self.assertEqual(account.balance, 70)
        self.assertEqual(account.history(), [("deposit", 100), ("withdraw", 30)])

    def test_overdraft(self):
        account = BankAccount()
        account.deposit(10)
        with self.assertRaises(ValueError):
            account.withdraw(11)
        self.assertEqual(account.balance, 10)
        self.assertEqual(account.history(), [("deposit", 10)])

    def test_bad_amounts(self):
        account = BankAccount()
        for bad in (0, -5):
            with self.assertRaises(ValueError):
                account.deposit(bad)
            with self.assertRaises(ValueError):
                account.withdraw(bad)

    def test_balance_is_read_only(self):
        with self.assertRaises(AttributeError):
            BankAccount().balance = 5


if __name__ == "__main__":
    unittest.main()
