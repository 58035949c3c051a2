"""TODO setup"""
