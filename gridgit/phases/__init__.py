"""TODO phases"""
