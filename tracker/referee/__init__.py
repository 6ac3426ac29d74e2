"""Rules engines: pure reducers fed with facts about shots."""
