"""The dependency graph finds every formula an edit affects, orders them so each reads
up-to-date values, and sets circular references apart."""

from __future__ import annotations

import datetime as dt

from officegym.apps.sheets.engine.graph import CIRCULAR, CIRCULAR_MESSAGE, Graph, recompute
from officegym.apps.sheets.engine.refs import Range
from officegym.apps.sheets.engine.values import CellError

TODAY = dt.date(2025, 9, 14)
S = "Sheet1"


def test_precedents_are_what_a_formula_reads():
    graph = Graph.build({(S, 1, 3): "=A1*B1+'Q3 Pipeline'!A1:A9"})
    assert graph.precedents((S, 1, 3)) == [
        (S, Range(1, 1, 1, 1)),
        (S, Range(1, 2, 1, 2)),
        ("Q3 Pipeline", Range(1, 1, 9, 1)),
    ]


def test_dependents_of_a_cell_include_formulas_reading_it_through_a_range():
    graph = Graph.build({(S, 1, 3): "=A1*2", (S, 1, 4): "=SUM(A1:A5000)", (S, 2, 3): "=A2"})
    assert graph.dependents((S, 1, 1)) == ((S, 1, 3), (S, 1, 4))
    assert graph.dependents((S, 4000, 1)) == ((S, 1, 4),)
    assert graph.dependents((S, 5001, 1)) == ()


def test_dependents_match_sheet_names_without_case():
    graph = Graph.build({(S, 1, 1): "='q3 pipeline'!B2"})
    assert graph.dependents(("Q3 Pipeline", 2, 2)) == ((S, 1, 1),)


def test_whole_column_references_depend_on_every_row():
    graph = Graph.build({(S, 1, 5): "=SUM(B:B)"})
    assert graph.dependents((S, 1_000_000, 2)) == ((S, 1, 5),)


def test_order_lists_transitive_dependents_after_what_they_read():
    # A1 → B1 → C1 → D1, plus D1 reading A1 directly.
    graph = Graph.build({(S, 1, 2): "=A1+1", (S, 1, 3): "=B1*2", (S, 1, 4): "=C1+A1"})
    ordered, cycles = graph.order([(S, 1, 1)])
    assert ordered == [(S, 1, 2), (S, 1, 3), (S, 1, 4)]
    assert cycles == set()


def test_order_leaves_out_formulas_that_do_not_depend_on_the_change():
    graph = Graph.build({(S, 1, 2): "=A1+1", (S, 2, 2): "=A2+1"})
    assert graph.order([(S, 2, 1)]) == ([(S, 2, 2)], set())


def test_order_includes_a_changed_cell_that_holds_a_formula():
    graph = Graph.build({(S, 1, 2): "=A1+1", (S, 1, 3): "=B1+1"})
    assert graph.order([(S, 1, 2)]) == ([(S, 1, 2), (S, 1, 3)], set())


def test_a_formula_reading_itself_is_circular():
    graph = Graph.build({(S, 1, 1): "=A1+1"})
    assert graph.order([(S, 1, 1)]) == ([], {(S, 1, 1)})


def test_a_formula_summing_a_range_around_itself_is_circular():
    graph = Graph.build({(S, 5, 1): "=SUM(A1:A10)"})
    assert graph.order([(S, 5, 1)]) == ([], {(S, 5, 1)})


def test_two_formulas_reading_each_other_are_circular():
    graph = Graph.build({(S, 1, 1): "=B1", (S, 1, 2): "=A1"})
    assert graph.order([(S, 1, 1)]) == ([], {(S, 1, 1), (S, 1, 2)})


def test_three_cell_cycle_is_circular_and_what_reads_it_is_still_ordered():
    # A1 → B1 → C1 → A1 is a cycle; D1 reads C1 and is evaluated after the cycle is marked.
    graph = Graph.build({(S, 1, 1): "=C1", (S, 1, 2): "=A1", (S, 1, 3): "=B1", (S, 1, 4): "=C1*2"})
    ordered, cycles = graph.order([(S, 1, 1)])
    assert cycles == {(S, 1, 1), (S, 1, 2), (S, 1, 3)}
    assert ordered == [(S, 1, 4)]


def test_set_replaces_a_formula_and_clearing_removes_it():
    graph = Graph.build({(S, 1, 2): "=A1"})
    graph.set((S, 1, 2), "=A2")
    assert graph.dependents((S, 1, 1)) == ()
    assert graph.dependents((S, 2, 1)) == ((S, 1, 2),)
    graph.set((S, 1, 2), None)
    assert graph.dependents((S, 2, 1)) == ()
    assert graph.formulas == {}


def test_circular_is_a_ref_error_with_the_circular_message():
    assert CellError("#REF!") == CIRCULAR
    assert CIRCULAR.detail == CIRCULAR_MESSAGE == "Circular dependency detected"


def test_recompute_updates_dependents_and_reports_changed_cells():
    values = {(S, 1, 1): 2.0, (S, 1, 2): 3.0, (S, 1, 3): 6.0, (S, 2, 3): 6.0}
    formulas = {(S, 1, 3): "=A1*B1", (S, 2, 3): "=SUM(C1:C1)"}
    values[(S, 1, 1)] = 5.0
    changed = recompute(values, formulas, [(S, 1, 1)], TODAY)
    assert values[(S, 1, 3)] == 15.0  # 5 * 3
    assert values[(S, 2, 3)] == 15.0
    assert changed == {(S, 1, 3), (S, 2, 3)}


def test_recompute_does_not_report_a_formula_whose_value_stayed_the_same():
    values = {(S, 1, 1): 2.0, (S, 1, 2): 0.0, (S, 1, 3): 0.0}
    formulas = {(S, 1, 3): "=A1*B1"}
    values[(S, 1, 1)] = 7.0
    assert recompute(values, formulas, [(S, 1, 1)], TODAY) == set()  # 7 * 0 is still 0


def test_recompute_tells_a_boolean_from_the_number_one():
    values = {(S, 1, 1): 1.0, (S, 1, 2): 1.0}
    formulas = {(S, 1, 2): "=A1=1"}
    assert recompute(values, formulas, [(S, 1, 2)], TODAY) == {(S, 1, 2)}
    assert values[(S, 1, 2)] is True


def test_recompute_stores_circular_in_cells_on_a_cycle():
    values: dict = {}
    formulas = {(S, 1, 1): "=B1+1", (S, 1, 2): "=A1+1"}
    recompute(values, formulas, list(formulas), TODAY)
    assert values[(S, 1, 1)] == CIRCULAR
    assert values[(S, 1, 2)] == CIRCULAR


def test_recompute_reads_other_sheets_by_name_in_any_case():
    values = {("Q3 Pipeline", 2, 2): 40.0}
    formulas = {(S, 1, 1): "='q3 pipeline'!B2/2"}
    recompute(values, formulas, [(S, 1, 1)], TODAY)
    assert values[(S, 1, 1)] == 20.0


def test_recompute_with_known_sheets_makes_a_missing_sheet_a_ref_error():
    values: dict = {}
    formulas = {(S, 1, 1): "=Gone!A1"}
    recompute(values, formulas, [(S, 1, 1)], TODAY, sheets=[S])
    assert values[(S, 1, 1)] == CellError("#REF!")


def test_recompute_passes_the_world_date_to_today():
    values: dict = {}
    recompute(values, {(S, 1, 1): "=TODAY()"}, [(S, 1, 1)], TODAY)
    assert values[(S, 1, 1)] == 45914.0  # 2025-09-14


def test_recompute_follows_formula_edits_between_calls():
    values = {(S, 1, 1): 2.0, (S, 2, 1): 10.0}
    formulas = {(S, 1, 2): "=A1*2"}
    recompute(values, formulas, [(S, 1, 2)], TODAY)
    formulas = {(S, 1, 2): "=A2*2"}
    recompute(values, formulas, [(S, 1, 2)], TODAY)
    values[(S, 2, 1)] = 11.0
    assert recompute(values, formulas, [(S, 2, 1)], TODAY) == {(S, 1, 2)}
    assert values[(S, 1, 2)] == 22.0


def test_recompute_with_a_kept_graph():
    values = {(S, 1, 1): 4.0}
    graph = Graph.build({(S, 1, 2): "=A1^2"})
    recompute(values, graph, [(S, 1, 1)], TODAY)
    assert values[(S, 1, 2)] == 16.0


def test_recompute_with_a_resolver_reads_through_it():
    def resolve(sheet, rng):
        return [[9.0]]

    values: dict = {}
    recompute(values, {(S, 1, 2): "=A1+1"}, [(S, 1, 2)], TODAY, resolve=resolve)
    assert values[(S, 1, 2)] == 10.0


def test_recompute_of_a_filled_column_and_its_total():
    # C{r} = A{r}*B{r} for 2,000 rows with A{r} = r and B{r} = 2, and a total in E1.
    values = {}
    formulas = {(S, 1, 5): "=SUM(C1:C2000)"}
    for r in range(1, 2001):
        values[(S, r, 1)] = float(r)
        values[(S, r, 2)] = 2.0
        formulas[(S, r, 3)] = f"=A{r}*B{r}"
    recompute(values, formulas, list(formulas), TODAY)
    assert values[(S, 1, 5)] == 4_002_000.0  # 2 * (1 + ... + 2000) = 2000 * 2001
    values[(S, 10, 1)] = 110.0
    changed = recompute(values, formulas, [(S, 10, 1)], TODAY)
    assert changed == {(S, 10, 3), (S, 1, 5)}
    assert values[(S, 1, 5)] == 4_002_200.0  # C10 went from 20 to 220
