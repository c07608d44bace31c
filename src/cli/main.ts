console.log("cairn");
