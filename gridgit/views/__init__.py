"""TODO views"""
