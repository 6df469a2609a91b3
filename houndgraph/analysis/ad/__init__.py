"""Active Directory rules: edges derived from collected AD objects, ACEs, local groups and GPOs."""
