"""TODO validation"""
