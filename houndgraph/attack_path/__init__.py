"""Attack-path findings and posture over HTTP: types, findings per domain, acceptance, sparklines, posture."""
