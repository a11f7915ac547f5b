"""The LLM roles: reflector, curator and the legacy single-call extractor.

Each role builds a prompt from its template, asks the LLM layer for a JSON
object and shapes the reply; none of them edits the playbook or raises.
"""
