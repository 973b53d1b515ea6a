"""Study kinds declared outside the library, as an organiser's package would."""
