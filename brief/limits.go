package brief

// MinMaxBytes is the smallest budget a brief can be given and still say
// something: the line naming a waiting baton that does not fit (or saying
// none waits) and a few recent commits. Below it a brief comes out empty
// while claiming to fit, so surfaces refuse smaller budgets.
const MinMaxBytes = 256
