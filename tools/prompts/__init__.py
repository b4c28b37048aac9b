"""The playbook prompts: texts, arguments, registration."""
