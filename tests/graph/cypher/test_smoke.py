def test_smoke(run, graph):
    r = run("MATCH (n:User) WHERE n.hasspn = true RETURN n.name AS name ORDER BY name")
    assert [row[0] for row in r.rows] == ["ALICE@LAB.LOCAL", "CAROL@LAB.LOCAL"]
