"""TODO demo"""
