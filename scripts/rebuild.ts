// `npm run rebuild`: the full static rebuild arrives with the static pipeline.
console.log('no static artifacts yet');
