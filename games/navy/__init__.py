"""Navy Defense: one Navy ship protects cargo ships from submarines it cannot see beyond its
sonar; a one-player game against scripted opponents, scored by cost (`docs/navy.md`)."""
