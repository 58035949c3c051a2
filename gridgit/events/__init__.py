"""TODO events"""
