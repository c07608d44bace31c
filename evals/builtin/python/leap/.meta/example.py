def is_leap_year(year):
    """True when the year has 366 days in the Gregorian calendar."""
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
