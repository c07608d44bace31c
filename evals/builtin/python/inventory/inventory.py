def remove_item(inventory, item, count=1):
    """Take count of item out of the inventory (a dict of item to count)."""
    inventory[item] = inventory.get(item, 0) - count
    return inventory
