def remove_item(inventory, item, count=1):
    """Take count of item out of the inventory (a dict of item to count)."""
    if count <= 0:
        raise ValueError("count must be above 0")
    have = inventory.get(item, 0)
    if have < count:
        raise ValueError(f"only {have} {item} in the inventory")
    if have == count:
        del inventory[item]
    else:
        inventory[item] = have - count
    return inventory
