// Drive the decongestant proxy with the Node.js driver, as a mongos.
//
//   node client.js HOST:PORT check         the compatibility checks, one line each
//   node client.js HOST:PORT seed          fill proxytest_node.reads (10 documents, on every member)
//   node client.js HOST:PORT reads MODE N  N reads of proxytest_node.reads with read preference MODE
//   node client.js HOST:PORT ryw N         on one connection (maxPoolSize 1, w 1): insert {_id: 'mine'}
//                                          into proxy_compat_ryw.c, read it back N times with secondaryPreferred
//   node client.js HOST:PORT stepdown      insert (distinct _ids) into proxy_compat_failover.c and read it
//                                          with secondaryPreferred, concurrently; print "started" once both
//                                          made 50 calls, wait for a line on stdin (the primary stepped
//                                          down), go on for 50 more of each, stop, print the counts
//
// It prints one line per check on stdout and exits non-zero on the first failure.
// proxy/node_test.go and proxy/compat_test.go run it, with the driver from the node_modules that npm ci
// installed from package-lock.json (found through NODE_PATH).
'use strict';

const assert = require('node:assert/strict');
const { MongoClient } = require('mongodb');

const [addr, mode = 'check', ...rest] = process.argv.slice(2);
if (!addr) {
  console.error('usage: node client.js HOST:PORT [check | seed | reads MODE N | ryw N | stepdown]');
  process.exit(2);
}

function connect(options = {}) {
  return new MongoClient(`mongodb://${addr}/`, { serverSelectionTimeoutMS: 60000, ...options });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function check() {
  let getMores = 0;
  const client = connect({ monitorCommands: true });
  client.on('commandStarted', (ev) => {
    if (ev.commandName === 'getMore') getMores++;
  });
  try {
    await client.db('admin').command({ ping: 1 });
    const desc = client.topology.description;
    const servers = [...desc.servers.values()].map((s) => s.type);
    assert.equal(desc.type, 'Sharded', `the driver sees a ${desc.type} topology, want Sharded (a mongos)`);
    assert.deepEqual(servers, ['Mongos']);
    console.log('topology', desc.type, servers.join(','));

    const db = client.db('proxytest_node');
    await db.dropDatabase();
    const coll = db.collection('docs');

    const docs = Array.from({ length: 50 }, (_, i) => ({ _id: i, k: i % 5 }));
    const ins = await coll.insertMany(docs);
    assert.equal(ins.insertedCount, 50);
    const ids = (await coll.find({}).sort({ _id: 1 }).batchSize(2).toArray()).map((d) => d._id);
    assert.deepEqual(ids, docs.map((d) => d._id));
    // 2 in the first batch, then 2 a getMore: at least 24 getMores.
    assert.ok(getMores >= 24, `${getMores} getMores for 50 documents in batches of 2`);
    console.log('find', ids.length, 'sorted in batches of 2');

    const agg = await coll.aggregate([{ $group: { _id: null, sum: { $sum: '$_id' } } }]).toArray();
    assert.equal(agg.length, 1);
    assert.equal(agg[0].sum, 1225);
    console.log('aggregate', agg[0].sum);

    const n = await coll.countDocuments({ k: 3 });
    assert.equal(n, 10);
    console.log('count', n);

    const ks = (await coll.distinct('k')).sort();
    assert.deepEqual(ks, [0, 1, 2, 3, 4]);
    console.log('distinct', ks.join(','));

    const bw = await coll.bulkWrite([
      { insertOne: { document: { _id: 100 } } },
      { insertOne: { document: { _id: 101 } } },
      { insertOne: { document: { _id: 102 } } },
      { updateOne: { filter: { _id: 100 }, update: { $set: { x: 1 } } } },
      { updateMany: { filter: { k: 1 }, update: { $set: { flag: true } } } },
      { replaceOne: { filter: { _id: 102 }, replacement: { y: 2 } } },
      { deleteOne: { filter: { _id: 101 } } },
      { deleteMany: { filter: { k: 4 } } },
    ]);
    // updates: 1 + 10 (k 1) + 1; deletes: 1 + 10 (k 4).
    const got = [bw.insertedCount, bw.matchedCount, bw.modifiedCount, bw.deletedCount, bw.upsertedCount];
    assert.deepEqual(got, [3, 12, 12, 11, 0], 'inserted, matched, modified, deleted, upserted');
    const total = await coll.countDocuments({});
    assert.equal(total, 42);
    assert.equal(await coll.countDocuments({ flag: true }), 10);
    console.log('bulkWrite inserted 3 matched 12 modified 12 deleted 11, 42 left');

    await coll.insertOne({ _id: 'w0' }, { writeConcern: { w: 0 } });
    let arrived = false;
    for (let i = 0; i < 600 && !arrived; i++) {
      arrived = (await coll.countDocuments({ _id: 'w0' })) === 1;
      if (!arrived) await sleep(100);
    }
    assert.ok(arrived, 'the w:0 insert never arrived');
    console.log('w0 ok');

    // 15.5 MiB of string: the document is just under maxBsonObjectSize (16 MiB).
    const big = 'x'.repeat(15.5 * 1024 * 1024);
    await coll.insertOne({ _id: 'big', s: big });
    const back = await coll.findOne({ _id: 'big' });
    assert.ok(back, 'the big document was not found');
    assert.equal(back.s.length, big.length);
    assert.ok(back.s === big, 'the big document came back changed');
    await coll.deleteOne({ _id: 'big' });
    console.log('big document', big.length, 'bytes ok');

    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await coll.insertOne({ _id: 'txn' }, { session });
        await coll.updateOne({ _id: 'txn' }, { $set: { done: true } }, { session });
      });
    } finally {
      await session.endSession();
    }
    const txn = await coll.findOne({ _id: 'txn' });
    assert.deepEqual(txn, { _id: 'txn', done: true });
    console.log('transaction ok');

    // On every member before the reads, so whichever answers has it.
    await db.collection('sp').insertMany(
      Array.from({ length: 6 }, (_, i) => ({ _id: i, k: i % 2 })),
      { writeConcern: { w: 3 } },
    );
    const sp = db.collection('sp', { readPreference: 'secondaryPreferred' });
    assert.equal((await sp.find({}).toArray()).length, 6);
    assert.equal(await sp.countDocuments({ k: 1 }), 3);
    assert.deepEqual((await sp.distinct('k')).sort(), [0, 1]);
    assert.equal((await sp.aggregate([{ $match: { k: 0 } }]).toArray()).length, 3);
    console.log('secondaryPreferred reads ok');

    await db.dropDatabase();
  } finally {
    await client.close();
  }
}

async function seed() {
  const client = connect();
  try {
    const coll = client.db('proxytest_node').collection('reads');
    await coll.drop().catch(() => {});
    const docs = Array.from({ length: 10 }, (_, i) => ({ _id: i, k: i % 2 }));
    // Acknowledged by all three members: any of them answers the reads.
    await coll.insertMany(docs, { writeConcern: { w: 3 } });
    console.log('seeded', docs.length);
  } finally {
    await client.close();
  }
}

// reads makes exactly n reads (find, count, distinct, aggregate in turn),
// each one command (every result fits in the first batch).
async function reads(readPreference, n) {
  assert.ok(readPreference && n > 0, 'usage: reads MODE N');
  const client = connect();
  try {
    const coll = client.db('proxytest_node').collection('reads', { readPreference });
    for (let i = 0; i < n; i++) {
      switch (i % 4) {
        case 0:
          assert.equal((await coll.find({}).toArray()).length, 10);
          break;
        case 1:
          assert.equal(await coll.countDocuments({ k: 1 }), 5);
          break;
        case 2:
          assert.deepEqual((await coll.distinct('k')).sort(), [0, 1]);
          break;
        case 3:
          assert.equal((await coll.aggregate([{ $match: { k: 0 } }]).toArray()).length, 5);
          break;
      }
    }
    console.log('reads', readPreference, n);
  } finally {
    await client.close();
  }
}

// ryw writes and reads back on one connection: the secondaries, which the
// test paused, will not acknowledge (w 1) nor have the write.
async function ryw(n) {
  assert.ok(n > 0, 'usage: ryw N');
  const client = connect({ maxPoolSize: 1, writeConcern: { w: 1 } });
  try {
    const coll = client.db('proxy_compat_ryw').collection('c');
    await coll.insertOne({ _id: 'mine' });
    const sp = client.db('proxy_compat_ryw').collection('c', { readPreference: 'secondaryPreferred' });
    let found = 0;
    for (let i = 0; i < n; i++) {
      if ((await sp.findOne({ _id: 'mine' })) !== null) found++;
    }
    console.log('ryw found', found, 'of', n);
  } finally {
    await client.close();
  }
}

// stepdown writes and reads until told the primary stepped down, and 50
// calls of each after. No timeouts but server selection's: the driver
// retries a write or a read once (retryWrites, retryReads by default).
async function stepdown() {
  const client = connect();
  const coll = client.db('proxy_compat_failover').collection('c');
  const sp = client.db('proxy_compat_failover').collection('c', { readPreference: 'secondaryPreferred' });
  let stop = false;
  let written = 0;
  let read = 0;
  const failed = [];
  const writer = (async () => {
    for (let i = 0; !stop; i++) {
      await coll.insertOne({ _id: i });
      written = i + 1;
    }
  })().catch((err) => failed.push(`insert: ${err}`));
  const reader = (async () => {
    while (!stop) {
      await sp.findOne({ _id: 0 });
      read++;
    }
  })().catch((err) => failed.push(`find: ${err}`));
  const finish = async () => {
    stop = true;
    await Promise.all([writer, reader]);
    await client.close();
    if (failed.length) throw new Error(failed.join('; '));
  };
  const until = async (cond) => {
    while (!cond()) {
      if (failed.length) await finish();
      await sleep(50);
    }
  };
  const line = new Promise((resolve) => {
    process.stdin.once('data', resolve);
  });
  await until(() => written >= 50 && read >= 50);
  console.log('started');
  await line;
  process.stdin.pause();
  const [w0, r0] = [written, read];
  await until(() => written >= w0 + 50 && read >= r0 + 50);
  await finish();
  console.log('written', written, 'read', read);
}

const modes = {
  check: () => check(),
  seed: () => seed(),
  reads: () => reads(rest[0], Number(rest[1])),
  ryw: () => ryw(Number(rest[0])),
  stepdown: () => stepdown(),
};

if (!modes[mode]) {
  console.error(`unknown mode ${mode}: want check, seed, reads, ryw or stepdown`);
  process.exit(2);
}
modes[mode]().catch((err) => {
  console.error(`FAIL (${mode}):`, err);
  process.exit(1);
});
