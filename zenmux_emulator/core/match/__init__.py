"""Choosing the answer: facts' predicates, the rule index, selection in a session's sequence, the outcome, near misses, expectations."""
