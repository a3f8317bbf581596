// @mysten/sui 2.x (and so @mysten/walrus 1.x) declares Node 22 or later (package.json engines);
// tests that run its gRPC client skip on older Node with this reason in their name.

export const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
export const NEEDS_NODE_22 = NODE_MAJOR < 22;
