"""OpenGraph schema extensions (`/api/v2/extensions`, `/api/v2/graph-schema/edges`): the node and edge kinds an
uploaded schema declares, which edge kinds path finding follows, and how the UI draws the node kinds."""
