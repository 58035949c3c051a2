"""TODO store"""
