"""Employees, teams and offices: the one directory every app signs in against."""

from __future__ import annotations

from datetime import date

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base


class Office(Base):
    __tablename__ = "people_office"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    city: Mapped[str] = mapped_column(String(80))
    country: Mapped[str] = mapped_column(String(80))
    address: Mapped[str] = mapped_column(String(200))
    timezone: Mapped[str] = mapped_column(String(64))


class Team(Base):
    __tablename__ = "people_team"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    department: Mapped[str] = mapped_column(String(80))
    description: Mapped[str] = mapped_column(Text, default="")


class Employee(Base):
    """A person at the company. `role` drives permissions: admin, manager or member."""

    __tablename__ = "people_employee"

    id: Mapped[int] = mapped_column(primary_key=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    display_name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(200), unique=True)
    title: Mapped[str] = mapped_column(String(120))
    team_id: Mapped[int] = mapped_column(ForeignKey("people_team.id"), index=True)
    manager_id: Mapped[int | None] = mapped_column(ForeignKey("people_employee.id"), index=True)
    office_id: Mapped[int] = mapped_column(ForeignKey("people_office.id"), index=True)
    timezone: Mapped[str] = mapped_column(String(64))
    phone: Mapped[str | None] = mapped_column(String(40))
    hire_date: Mapped[date] = mapped_column()
    role: Mapped[str] = mapped_column(String(16), default="member")
    # staff, manager, director or executive: what travel policy caps key on.
    job_level: Mapped[str] = mapped_column(String(16), default="staff")
    is_active: Mapped[bool] = mapped_column(default=True)
    status_emoji: Mapped[str] = mapped_column(String(16), default="")
    status_text: Mapped[str] = mapped_column(String(100), default="")
    avatar_color: Mapped[str] = mapped_column(String(7), default="#4a5568")
    password_hash: Mapped[str] = mapped_column(String(200))
