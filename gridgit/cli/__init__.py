"""The command line (layer 4, interface): a thin click shell over gridgit.Blackboard.

main.py is the lazy group and the one error boundary (GridError -> exit code); each other
module holds one command group. Commands parse, call one library function and format; they
may import anything below, and nothing imports them.
"""
