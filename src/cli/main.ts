console.log("cairn")
