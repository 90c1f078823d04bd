public enum CaptureSensorsModule {}
