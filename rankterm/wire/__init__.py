"""What goes over the wire: models, the new-match judge, the endpoints table, the error tree, ids, text types. No I/O."""
