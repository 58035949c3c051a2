"""TODO model"""
