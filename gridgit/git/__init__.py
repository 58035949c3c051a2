"""TODO git"""
