"""TODO coordination"""
