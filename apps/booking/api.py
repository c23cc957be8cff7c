"""Placeholder until written."""

from flask import Blueprint

api_bp = Blueprint("booking_api", __name__)
