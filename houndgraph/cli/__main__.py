from houndgraph.cli.main import app

app(prog_name="houndgraph")
