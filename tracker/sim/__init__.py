"""The simulator: physics of the balls, scripted scenarios, and a renderer that makes video with
exact ground truth."""
