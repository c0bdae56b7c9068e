# Sourced by the GPU-machine scripts: unpacks .gl/ (Debian packages of the Vulkan loader, into /,
# and of the libraries the binaries link, under /opt/vl) and sets LIBS, their library path.
GL="libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2"
mkdir -p /opt/vl
for f in .gl/*.deb; do
  p=$(dpkg-deb -f "$f" Package)
  case " $GL " in *" $p "*) dpkg -x "$f" / ;; *) dpkg -x "$f" /opt/vl ;; esac
done
ldconfig
LIBS=/opt/vl/usr/lib/x86_64-linux-gnu:/opt/vl/lib/x86_64-linux-gnu
