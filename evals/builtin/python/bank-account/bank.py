class BankAccount:
    """An account with deposits, withdrawals and their history."""
